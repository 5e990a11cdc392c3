import { InMemoryEventStore } from "./inMemoryEventStore.js";
import { describeEventStoreContract } from "./testing/index.js";

describeEventStoreContract("InMemoryEventStore", () => new InMemoryEventStore());
