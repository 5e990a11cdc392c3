// R11: a refresh that finds nothing stale ends like any other. It once left its finished run
// behind as "in flight": every later refresh returned it (a host with one server never
// refetched after list_changed) and settled() spun forever.
import { afterEach, describe, expect, it } from "vitest";
import { shipped, waitFor } from "../testing/fixtures.js";
import { openHost, type ToolledgerHost } from "./toolledgerHost.js";

const hosts: ToolledgerHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

describe("R11 refresh after a refresh with nothing stale", () => {
  it("a single server's list change is refetched, and settled() resolves", async () => {
    const host = await openHost({ refetchDebounceMs: 10 });
    hosts.push(host);
    await host.addExtensions([shipped("changing", "changing")]);
    // Nothing is stale now: this refresh has nothing to do.
    await host.refresh();
    await host.callUpstream("changing", "add_tool", { name: "fresh" });
    await waitFor(
      host.state$,
      (s) => s.version > 0 && host.listTools().some((t) => t.publicName === "changing__fresh"),
      "changing__fresh after list_changed",
    );
    let settled = false;
    await Promise.race([
      host.settled().then(() => {
        settled = true;
      }),
      new Promise((r) => setTimeout(r, 10_000)),
    ]);
    expect(settled).toBe(true);
  });
});
