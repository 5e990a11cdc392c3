import { describeEventStoreContract, describeSessionStoreContract } from "@toolledger/core/testing";
import { afterAll } from "vitest";
import { describeWithPostgres, dropSchemas, uniqueSchema } from "../../testing/testServer.js";
import { PostgresEventStore } from "./postgresEventStore.js";

describeWithPostgres("PostgresEventStore", (url) => {
  const schemas: string[] = [];
  afterAll(() => dropSchemas(url, schemas));

  describeEventStoreContract(
    "PostgresEventStore",
    async () => {
      const schema = uniqueSchema("contract");
      schemas.push(schema);
      return PostgresEventStore.open(url, { schema, poolSize: 2 });
    },
    {
      reopen: async (store) => {
        const schema = (store as PostgresEventStore).schema;
        await store.close();
        return PostgresEventStore.open(url, { schema, poolSize: 2, create: false });
      },
    },
  );

  describeSessionStoreContract("PostgresEventStore", async ({ now }) => {
    const schema = uniqueSchema("session");
    schemas.push(schema);
    return PostgresEventStore.open(url, {
      schema,
      poolSize: 2,
      ...(now === undefined ? {} : { now }),
    });
  });
});
