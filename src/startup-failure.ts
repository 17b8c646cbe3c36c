// What an operator reads when the service cannot start: one line naming the cause and the setting to
// look at, never a driver's stack (Prisma's schema engine throws from WebAssembly with twenty frames
// of generated glue) and never a URL's credentials.
import { redactSecrets } from "./logger.js";

interface Cause {
  matches: (error: NodeJS.ErrnoException, message: string) => boolean;
  says: string;
}

const CAUSES: Cause[] = [
  {
    // The schema engine says it in words; the driver adapter (the migrations' lock connection) by its error kind.
    matches: (_, message) =>
      /can't reach database server|connection refused|ECONNREFUSED.*5432|timed out fetching a new connection|DatabaseNotReachable/i.test(
        message,
      ),
    says: "the database cannot be reached: check DATABASE_URL and that the server is running",
  },
  {
    matches: (_, message) =>
      /authentication failed|password authentication|denied access|database .* does not exist|AuthenticationFailed|DatabaseDoesNotExist|DatabaseAccessDenied/i.test(
        message,
      ),
    says: "the database refused the connection: check DATABASE_URL's user, password and database name",
  },
  {
    matches: (error, message) =>
      error.syscall === "mkdir" ||
      error.syscall === "open" ||
      /unable to open the database file|SQLITE_CANTOPEN|readonly database/i.test(message),
    says: "a file cannot be created or opened for writing: check the paths in DATABASE_URL and DEV_CHAIN_FILE and their folders' permissions",
  },
  {
    matches: (error) => error.code === "EADDRINUSE",
    says: "the port is already in use: stop the other process or set PORT",
  },
  { matches: (error) => error.syscall === "listen", says: "the port cannot be opened: check PORT and HOST" },
];

/** One line for stderr: the cause in words, then the error's own first line, credentials removed. */
export function describeStartupFailure(error: unknown): string {
  const failure = (error instanceof Error ? error : new Error(String(error))) as NodeJS.ErrnoException;
  const firstLine = failure.message.split("\n").find((line) => line.trim() !== "") ?? failure.name;
  const cause = CAUSES.find((candidate) => candidate.matches(failure, failure.message));
  const detail = redactSecrets(firstLine.trim());
  return `could not start: ${cause ? `${cause.says} (${detail})` : detail}`;
}
