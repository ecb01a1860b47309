// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { render, type Rendered } from "../../test/dom";
import { exceptionSummary } from "../../test/fixtures";
import { ResolutionNote } from "./ResolutionNote";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("a closed exception's note", () => {
  it("quotes a person's note as written, and marks the engine's own sentence as English evidence", async () => {
    const closed = { status: "resolved" as const, resolved_at_ms: 1 };
    view = await render(
      <div>
        <p data-testid="person">
          <ResolutionNote exception={exceptionSummary(1, { ...closed, resolution: "cancel", resolution_note: "Le client a rappelé", resolved_by: "marie" })} />
        </p>
        <p data-testid="system">
          <ResolutionNote
            exception={exceptionSummary(2, { ...closed, resolution: "accepted_by_evidence", resolution_note: "A receipt attached by marie shows…", resolved_by: "system" })}
          />
        </p>
        <p data-testid="no-note">
          <ResolutionNote exception={exceptionSummary(3, { ...closed, resolution: "cancel", resolution_note: "cancel by marie", resolved_by: "marie" })} />
        </p>
      </div>,
      ["fr-FR"],
    );
    const person = view.container.querySelector('[data-testid="person"]')!;
    expect(person.querySelector("q")?.textContent).toBe("Le client a rappelé");
    for (const id of ["system", "no-note"]) {
      const p = view.container.querySelector(`[data-testid="${id}"]`)!;
      expect(p.querySelector("q"), id).toBeNull();
      expect(p.querySelector('[lang="en"]')?.getAttribute("data-testid"), id).toBe("resolution-engine-note");
    }
  });
});
