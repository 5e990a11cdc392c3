import { describeEventStoreContract } from "../../testing/index.js";
import { InMemoryEventStore } from "./inMemoryEventStore.js";

describeEventStoreContract("InMemoryEventStore", () => new InMemoryEventStore());
