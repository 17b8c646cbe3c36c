// `node --import ./tools/bench/cpu-profile.mjs`: a V8 CPU profile of this process, written to
// $BENCH_CPU_PROF/CPU.<pid>.cpuprofile when it exits (Node 20 refuses --cpu-prof in NODE_OPTIONS).
// The in-thread inspector session answers synchronously, so the exit handler can write it.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const session = new Session();
session.connect();
session.post("Profiler.enable");
session.post("Profiler.start");
process.on("exit", () => {
  session.post("Profiler.stop", (error, result) => {
    if (!error)
      writeFileSync(join(process.env.BENCH_CPU_PROF, `CPU.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });
});
