#!/usr/bin/env node
// The x402-market bin: registers tsx (a dependency) and runs the TypeScript entry.
import { register } from "tsx/esm/api";

register();
await import(new URL("./main.ts", import.meta.url).href);
