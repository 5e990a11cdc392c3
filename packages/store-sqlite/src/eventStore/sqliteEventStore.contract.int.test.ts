import { describeEventStoreContract, describeSessionStoreContract } from "@toolledger/core/testing";
import { tempDir } from "../testing/tempDir.test-helpers.js";
import { SqliteEventStore } from "./sqliteEventStore.js";

let dir: ReturnType<typeof tempDir> | null = null;
let n = 0;

describeEventStoreContract(
  "SqliteEventStore",
  () => {
    dir ??= tempDir();
    return SqliteEventStore.open(dir.file(`contract-${n++}.db`), { durability: "normal" });
  },
  {
    reopen: async (store) => {
      const file = (store as SqliteEventStore).file;
      await store.close();
      return SqliteEventStore.open(file, { durability: "normal" });
    },
    dispose: () => {
      dir?.remove();
      dir = null;
    },
  },
);

describeSessionStoreContract(
  "SqliteEventStore",
  ({ now }) => {
    dir ??= tempDir();
    return SqliteEventStore.open(dir.file(`session-${n++}.db`), {
      durability: "normal",
      ...(now === undefined ? {} : { now }),
    });
  },
  {
    dispose: () => {
      dir?.remove();
      dir = null;
    },
  },
);
