// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { AppInfo } from "../bindings/AppInfo";
import { queryTestId, render, settle, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { AboutPanel } from "./AboutPanel";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const INFO: AppInfo = {
  product: "smsdesk",
  version: "0.1.0",
  mode: "serve",
  schemaVersion: 12,
  httpUrl: "http://127.0.0.1:8470",
  startedAtMs: 1_796_171_513_408,
};

async function about(info: AppInfo): Promise<HTMLElement> {
  const backend = new FakeBackend();
  backend.info = () => Promise.resolve(info);
  view = await render(<AboutPanel backend={backend} />);
  await settle();
  return view.container;
}

describe("the About panel", () => {
  it("shows where the data lives when the engine tells it (to an admin)", async () => {
    const root = await about({ ...INFO, dataDir: "/srv/smsdesk", databasePath: "/srv/smsdesk/smsdesk.db", configPath: "/srv/smsdesk/smsdesk.toml" });
    expect(queryTestId(root, "info-data-dir")?.textContent).toBe("/srv/smsdesk");
    expect(queryTestId(root, "info-database-path")?.textContent).toBe("/srv/smsdesk/smsdesk.db");
    expect(queryTestId(root, "info-config-path")?.textContent).toBe("/srv/smsdesk/smsdesk.toml");
  });

  it("leaves the paths out, rows and all, when the engine does not tell them (not an admin)", async () => {
    const root = await about(INFO);
    expect(queryTestId(root, "info-version")?.textContent, "the rest is shown").toBe("0.1.0");
    for (const id of ["info-data-dir", "info-database-path", "info-config-path"]) {
      expect(queryTestId(root, id), `${id} is not shown without a path`).toBeNull();
    }
  });
});
