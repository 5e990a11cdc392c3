/** What reading a config may consult besides the file: the environment, for `${VAR}` and `env_keys`. */
export interface ConfigContext {
  env: Readonly<Record<string, string | undefined>>;
  home: string;
  cwd: string;
  /** Check the file's structure only: `${…}` stays as written and `env_keys` are not looked up. */
  structureOnly?: boolean;
}
