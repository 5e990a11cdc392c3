import { MAX_DEFINITION_BYTES } from "@toolledger/adapters-mcp";
import { describe, expect, test } from "vitest";
import { CliError } from "../program/cliError.js";
import { MAX_DEFINITION_KB } from "./configSchemas.js";
import { parseConfig } from "./loadConfig.js";

// V3 (issue 34.1): the config file's toolledger.max_definition_kb.

describe("toolledger.max_definition_kb", () => {
  test("is read in KiB and given to the host in bytes", () => {
    const config = parseConfig(
      "/c/mcp.json",
      JSON.stringify({ toolledger: { max_definition_kb: 64 }, mcpServers: {} }),
    );
    expect(config.maxDefinitionBytes).toBe(64 * 1024);
    expect(config.warnings).toEqual([]);
    expect(parseConfig("/c/mcp.json", '{"mcpServers": {}}').maxDefinitionBytes).toBeUndefined();
  });

  test("a cap no page could hold is refused where it is written, with the most it may be", () => {
    let error: unknown;
    try {
      parseConfig(
        "/c/mcp.json",
        JSON.stringify({ toolledger: { max_definition_kb: 20000 }, mcpServers: {} }, null, 2),
      );
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toContain(
      "/c/mcp.json:3:26: toolledger.max_definition_kb: at most 8064 (KiB): a definition must fit one page of a served list",
    );
  });

  test("its most is the adapters' MAX_DEFINITION_BYTES", () => {
    expect(MAX_DEFINITION_KB * 1024).toBe(MAX_DEFINITION_BYTES);
  });
});
