/**
 * A `.wasm` file imported `with { type: "file" }`: its path, inside the compiled executable's
 * own file system when dsh runs compiled, else in `node_modules`.
 */
declare module "*.wasm" {
  const path: string;
  export default path;
}
