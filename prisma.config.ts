/**
 * Prisma CLI configuration (Prisma 7 reads the datasource URL from here, not from the schema).
 *
 * `prisma generate` (run through `npm run db:generate`) needs no database; the URL matters only
 * to Prisma CLI commands that connect, so an unset DATABASE_URL falls back to the local
 * development database instead of failing. Migrations are not applied by the Prisma CLI here
 * (it needs a native engine we cannot download): see `npm run db:migrate`.
 */
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: {
    url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/switchyard',
  },
});
