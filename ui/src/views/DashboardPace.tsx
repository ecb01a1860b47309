import type { Backend } from "../backend";
import type { LinkState } from "../bindings/LinkState";
import type { Pace } from "../bindings/Pace";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { paceNote, paceStatus, paceWords, scheduledWords } from "./pace";

/** The measured rate moves with time, not only with store changes: the pace is asked for this often. */
export const PACE_POLL_MS = 5_000;

const anyChange = (): boolean => true;
const loadPace = (backend: Backend): Promise<Pace> => backend.pace();

/**
 * How fast messages go out and how long what is due will take, with what is scheduled for later
 * apart, kept current while it is shown: on the dashboard, the one place the queue's size is said.
 * `link` is the connection's state as the dashboard last read it (null until it is known).
 */
export function DashboardPace({ backend, link = null }: { backend: Backend; link?: LinkState | null }) {
  // While a campaign goes out every send is a change: one reload a second is plenty.
  const { state } = useBackendData(backend, loadPace, { live: anyChange, coalesceMs: 1_000, pollMs: PACE_POLL_MS });
  // Until it answers (or if it cannot), the dashboard's other figures stand alone.
  if (state.status !== "ready") return null;
  return <PaceSummary pace={state.data} link={link} />;
}

export function PaceSummary({ pace, link = null }: { pace: Pace; link?: LinkState | null }) {
  const i18n = useI18n();
  const note = paceNote(pace, i18n);
  const scheduled = scheduledWords(pace, i18n);
  return (
    <div className="dashboard-pace" data-testid="dashboard-pace">
      <h3>{i18n.t("dashboard.pace")}</h3>
      <p
        className="pace-line"
        data-testid="pace"
        data-connection={pace.connection}
        data-queued={pace.queued}
        data-status={paceStatus(pace, link)}
      >
        {paceWords(pace, i18n, link)}
      </p>
      {scheduled !== null && (
        <p
          className="pace-scheduled"
          data-testid="pace-scheduled"
          data-count={pace.scheduled}
          data-next={pace.next_scheduled_at_ms ?? ""}
        >
          {scheduled}
        </p>
      )}
      {note !== null && (
        <p className="muted" data-testid="pace-note">
          {note}
        </p>
      )}
    </div>
  );
}
