export {
  asBackendError,
  BackendError,
  CLIENT_ERROR_CODES,
  ERROR_CODES,
  type Backend,
  type BackendErrorCode,
  type ClientErrorCode,
  type ExportOptions,
} from "./backend";
export { HttpBackend } from "./http";
export { TauriBackend } from "./tauri";
export { isTauri, selectBackend, type Connection } from "./select";
export { Session, type PeopleAccess, type SessionState, type SignedOutWhy } from "./session";
