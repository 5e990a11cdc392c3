import { describe, expect, it } from "vitest";
import { checkNode } from "./checkNode.js";

// Issue 34, point 13: engines.node names the Node lines the release is tested on, each from a
// floor; doctor reads every range of it, not only a `>=`.
const ENGINES = "^20.19.0 || ^22.12.0 || ^24.0.0 || ^26.0.0";

describe("doctor's Node check against engines.node", () => {
  it("a version of a supported line at or above its floor is ok", () => {
    for (const version of ["20.19.0", "20.20.2", "22.12.0", "22.23.5", "24.0.0", "26.12.1"])
      expect(checkNode(version, ENGINES), version).toMatchObject({
        status: "ok",
        subject: `Node ${version}`,
        message: `toolledger supports ${ENGINES}`,
      });
  });

  it("below the first floor: older than supported, and which Node to install", () => {
    for (const version of ["18.20.4", "20.18.3"])
      expect(checkNode(version, ENGINES), version).toMatchObject({
        status: "fail",
        message: `older than toolledger supports (${ENGINES})`,
        fix: `install Node 26 or another version that ${ENGINES} allows (nodejs.org, your package manager or version manager), then reinstall toolledger with it`,
      });
  });

  it("below a line's floor, an odd line or a line newer than tested: not supported", () => {
    for (const version of ["21.7.3", "22.11.0", "23.11.1", "25.9.0", "27.0.0"])
      expect(checkNode(version, ENGINES), version).toMatchObject({
        status: "fail",
        message: `not a Node version toolledger supports (${ENGINES})`,
      });
  });

  it("the earlier >= form still reads; a range it cannot read is said, not guessed", () => {
    expect(checkNode("20.19.0", ">=20.19")).toMatchObject({ status: "ok" });
    expect(checkNode("20.18.0", ">=20.19")).toMatchObject({
      status: "fail",
      message: "older than toolledger supports (>=20.19)",
    });
    expect(checkNode("22.1.0", "~22.1 || 24")).toMatchObject({
      status: "skip",
      message: 'cannot read engines.node "~22.1 || 24"',
    });
  });
});
