#!/usr/bin/env node
// V1: a modern-only test server (MCP 2026-07-28; 2025-era openings refused), over stdio, or
// over streamable HTTP with `--http [--port N]`. See internal/eraServer.ts.
import { startEraServer } from "./internal/eraServer.js";

startEraServer("modern-only", "reject");
