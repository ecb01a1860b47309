import type { ReactNode } from "react";

/**
 * Something shown on demand: a native disclosure, so it opens with Enter or Space and says
 * whether it is open to assistive technology without any script.
 */
export function Disclosure({
  summary,
  children,
  testId,
  id,
  className,
}: {
  summary: ReactNode;
  children: ReactNode;
  testId?: string;
  id?: string;
  className?: string;
}) {
  return (
    <details className={className === undefined ? "disclosure" : `disclosure ${className}`} data-testid={testId} id={id}>
      <summary>{summary}</summary>
      <div className="disclosure-body">{children}</div>
    </details>
  );
}
