import { useId, type ReactNode } from "react";

/** One panel of the settings form: a heading, a sentence on what it holds, and its fields. */
export function Section({
  id,
  title,
  intro,
  children,
}: {
  id: string;
  title: string;
  /** A sentence, or one with a link in it. */
  intro?: ReactNode;
  children: ReactNode;
}) {
  const headingId = useId();
  return (
    <section className="panel settings-section" aria-labelledby={headingId} data-testid={`settings-${id}`}>
      <h2 id={headingId}>{title}</h2>
      {intro !== undefined && <p className="panel-intro">{intro}</p>}
      {children}
    </section>
  );
}
