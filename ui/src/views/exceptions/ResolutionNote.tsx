import type { ExceptionSummary } from "../../bindings/ExceptionSummary";

/**
 * The note a closed exception carries. A person's note is quoted as they wrote it. The engine's own
 * sentence (an exception the system settled on new evidence, or the `<resolution> by <name>` it
 * records for a decision taken without a note) is English evidence, marked so: what was decided is
 * said in the reader's language beside it, from the resolution's code.
 */
export function ResolutionNote({ exception: e }: { exception: ExceptionSummary }) {
  const note = e.resolution_note;
  if (note === null) return null;
  if (e.resolved_by === "system" || note === `${e.resolution ?? ""} by ${e.resolved_by ?? ""}`) {
    return (
      <span lang="en" className="muted" data-testid="resolution-engine-note">
        {note}
      </span>
    );
  }
  return <q>{note}</q>;
}
