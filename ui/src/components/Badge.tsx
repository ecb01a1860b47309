import type { ReactNode } from "react";
import type { Tone } from "../views/tones";

export function Badge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}
