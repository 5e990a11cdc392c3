#!/usr/bin/env node
// V1: a dual-era test server (MCP 2026-07-28 and 2025-11-25), over stdio, or over streamable
// HTTP with `--http [--port N]`. See internal/eraServer.ts.
import { startEraServer } from "./internal/eraServer.js";

startEraServer("dual-era", "serve");
