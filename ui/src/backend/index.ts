export { BackendError, CLIENT_ERROR_CODES, type Backend } from "./backend";
export { HttpBackend } from "./http";
export { TauriBackend } from "./tauri";
export { isTauri, selectBackend } from "./select";
