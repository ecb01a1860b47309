import type { Backend } from "../backend";
import { MessageList } from "./MessageList";
import { SendTestMessage } from "./SendTestMessage";

/** The Messages section: what was sent and what became of it, and a way to send one. */
export function Messages({ backend }: { backend: Backend }) {
  return (
    <div className="stack">
      <SendTestMessage backend={backend} />
      <MessageList backend={backend} />
    </div>
  );
}
