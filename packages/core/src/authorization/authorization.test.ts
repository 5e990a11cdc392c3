import { describe, expect, it } from "vitest";
import { decide } from "../decide/decide.js";
import { decodeEvent } from "../events/decodeEvent.js";
import {
  EVENT_SCHEMA_VERSION,
  REGISTRY_EVENT_TYPES,
  type ToolledgerEvent,
} from "../events/events.js";
import { evolve } from "../fold/evolve.js";
import { host } from "../fold/fixtures.test-helpers.js";
import type { State } from "../fold/state.js";
import { getExtension } from "../registry/extensions.js";
import { listTools } from "../registry/listTools.js";
import { OAuthAuthorizedSchema } from "./authorizationEvents.js";

function apply(state: State, command: Parameters<typeof decide>[1]): [State, ToolledgerEvent[]] {
  const d = decide(state, command);
  if (!d.ok) throw new Error(d.error.message);
  return [d.events.reduce(evolve, state), d.events];
}

describe("A1–A4 OAuth events", () => {
  it("A4 records required → authorized → refreshed → failed on the extension, tools untouched", () => {
    const h = host();
    h.add("Linear");
    h.fetch("Linear", ["list_issues"]);
    let s = h.state;
    const version = s.version;
    const [required, events] = apply(s, {
      type: "RequireAuthorization",
      at: "2026-01-01T00:00:00.000Z",
      extension: "Linear",
      issuer: null,
      scopes: ["read"],
      reason: "no_token",
      prompt: "browser",
    });
    s = required;
    expect(events[0]).toMatchObject({ type: "OAuthAuthorizationRequired", extension: "linear" });
    expect(getExtension(s, "linear")?.authorization).toMatchObject({
      status: "required",
      scopes: ["read"],
      reason: "no_token",
    });
    [s] = apply(s, {
      type: "RecordAuthorization",
      at: "2026-01-01T00:00:05.000Z",
      extension: "linear",
      issuer: "https://auth.example.com",
      scopes: ["read", "write"],
      expiresAt: "2026-01-01T01:00:05.000Z",
      grant: "authorization_code",
      client: "dynamic",
    });
    expect(getExtension(s, "linear")?.authorization).toMatchObject({
      status: "authorized",
      issuer: "https://auth.example.com",
      scopes: ["read", "write"],
      authorizedAt: "2026-01-01T00:00:05.000Z",
      grant: "authorization_code",
      client: "dynamic",
      refreshes: 0,
    });
    [s] = apply(s, {
      type: "RecordTokenRefresh",
      at: "2026-01-01T00:59:00.000Z",
      extension: "linear",
      issuer: "https://auth.example.com",
      expiresAt: "2026-01-01T01:59:00.000Z",
    });
    const refreshed = getExtension(s, "linear")?.authorization;
    expect(refreshed).toMatchObject({
      status: "authorized",
      lastRefreshAt: "2026-01-01T00:59:00.000Z",
      refreshes: 1,
      // A refresh that names no scopes keeps the granted ones.
      scopes: ["read", "write"],
    });
    [s] = apply(s, {
      type: "RecordAuthorizationFailure",
      extension: "linear",
      issuer: "https://auth.example.com",
      error: "invalid_grant",
      message: "the refresh token was rejected; run `toolledger auth login Linear`",
    });
    expect(getExtension(s, "linear")?.authorization).toMatchObject({
      status: "failed",
      error: "invalid_grant",
      issuer: "https://auth.example.com",
    });
    // The registry (tools, cache version) is not an OAuth event's business.
    expect(s.version).toBe(version);
    expect(listTools(s).map((t) => t.publicName)).toEqual(["linear__list_issues"]);
  });

  it("A4 an OAuth command for an unknown extension is refused as a value", () => {
    const d = decide(host().state, {
      type: "RequireAuthorization",
      extension: "nope",
      reason: "no_token",
    });
    expect(d).toMatchObject({ ok: false, error: { code: "UNKNOWN_EXTENSION" } });
  });

  it("E6 a malformed OAuth command is refused, naming the field", () => {
    const h = host();
    h.add("x");
    const d = decide(h.state, {
      type: "RecordAuthorization",
      extension: "x",
      issuer: "https://a",
      grant: "password",
      client: "dynamic",
    } as never);
    expect(d).toMatchObject({ ok: false, error: { code: "INVALID_COMMAND", path: "grant" } });
  });

  it("C1 OAuth events are registry events, written with this build's schema version", () => {
    for (const t of [
      "OAuthAuthorizationRequired",
      "OAuthAuthorized",
      "OAuthTokenRefreshed",
      "OAuthAuthorizationFailed",
    ] as const)
      expect(REGISTRY_EVENT_TYPES.has(t)).toBe(true);
    expect(OAuthAuthorizedSchema.shape.v.value).toBe(EVENT_SCHEMA_VERSION);
  });

  it("E6 decodes a minimal OAuth event with its defaults, and older logs fold without them", () => {
    const r = decodeEvent({
      type: "OAuthAuthorizationFailed",
      v: 1,
      extension: "x",
      error: "access_denied",
    });
    expect(r).toEqual({
      ok: true,
      event: {
        type: "OAuthAuthorizationFailed",
        v: 1,
        extension: "x",
        issuer: null,
        error: "access_denied",
        message: null,
      },
    });
    const h = host();
    h.add("x");
    expect(getExtension(h.state, "x")?.authorization).toBeUndefined();
  });

  it("an OAuth event of a removed extension is ignored, with why", () => {
    const h = host();
    const event: ToolledgerEvent = {
      type: "OAuthTokenRefreshed",
      v: 1,
      extension: "gone",
      issuer: "https://a",
      scopes: [],
      expiresAt: null,
    };
    const s = evolve(h.state, event);
    expect(s.ignored.at(-1)).toEqual({
      type: "OAuthTokenRefreshed",
      reason: 'no extension "gone"',
    });
  });
});
