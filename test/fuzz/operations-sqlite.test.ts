// The contract's operations fuzzed on SQLite (the sweep: operation-sweep.ts).
import { fuzzEveryOperation } from "./operation-sweep.js";

fuzzEveryOperation("sqlite");
