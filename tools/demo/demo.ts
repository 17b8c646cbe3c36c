/** `npm run demo`: the whole story on a local chain (see story.ts). Exit 0 on success, 1 on failure. */
import { runStory } from "./story.js";

try {
  await runStory();
} catch (error) {
  console.error(`\nThe demo failed: ${(error as Error).message}`);
  process.exitCode = 1;
}
