// Keys all instances share, kept in the database: the first instance that needs one generates it,
// and an insert-if-absent followed by a read makes every instance use the same one.
import type { Database } from "./database.js";

export class ServiceKeyStore {
  constructor(private readonly db: Database) {}

  async getOrCreate(name: string, generate: () => string, now: Date): Promise<string> {
    return this.db.exclusive(async () => {
      await this.db.prisma
        .$executeRaw`INSERT INTO "ServiceKey" ("name", "privateKey", "createdAt") VALUES (${name}, ${generate()}, ${now}) ON CONFLICT ("name") DO NOTHING`;
      const row = await this.db.prisma.serviceKey.findUniqueOrThrow({ where: { name } });
      return row.privateKey;
    });
  }
}
