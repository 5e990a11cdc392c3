// The driver-free entry `@toolledger/store-postgres/url`: a CLI decides which store a location
// names, and shows it, without loading the PostgreSQL driver.
export { isPostgresUrl } from "./database/isPostgresUrl.js";
export { redactConnectionString } from "./database/redactConnectionString.js";
