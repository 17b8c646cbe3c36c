// The contract's operations fuzzed on PostgreSQL (the sweep: operation-sweep.ts); skipped without TEST_POSTGRES_URL.
import { fuzzEveryOperation } from "./operation-sweep.js";

fuzzEveryOperation("postgres");
