import type { ReactNode } from "react";

/** Label/value pairs: side by side when there is room, stacked when narrow or zoomed. */
export function Facts({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <dl className="facts" data-testid={testId}>
      {children}
    </dl>
  );
}

/** One fact; nothing at all when there is no value (an absent fact is not shown as empty). */
export function Fact({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) {
  if (children === null || children === undefined || children === "") return null;
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

/**
 * A value exactly as stored, quoted and escaped, so that spaces, case and invisible characters
 * show (a provider id "0A1" and "0a1 " must not look the same).
 */
export function Exact({ value, testId }: { value: string; testId?: string }) {
  return (
    <code className="exact" data-testid={testId} data-value={value}>
      {JSON.stringify(value)}
    </code>
  );
}
