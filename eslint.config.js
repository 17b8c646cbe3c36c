// Lint rules for the service, its tests and tools (`npm run lint`, part of `npm test`): the
// recommended rules of ESLint and typescript-eslint, without type information (fast; the compiler,
// strict, already checks what the type-aware rules would).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const node = {
  process: "readonly",
  console: "readonly",
  Buffer: "readonly",
  URL: "readonly",
  performance: "readonly",
  fetch: "readonly",
  setTimeout: "readonly",
  clearTimeout: "readonly",
};

export default tseslint.config(
  {
    ignores: ["generated/**", "dist/**", "node_modules/**", "coverage/**", "tsp-output/**", "src/documents/scripts/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: "module", globals: node },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          caughtErrors: "none",
        },
      ],
    },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { ...node, module: "writable", require: "readonly" } },
  },
  // Tests read JSON answers of whatever shape the server sent, and assert on them.
  { files: ["test/**"], rules: { "@typescript-eslint/no-explicit-any": "off" } },
);
