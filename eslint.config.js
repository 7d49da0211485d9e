import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import { typeImportCycleRule } from './scripts/lint/type-import-cycle.rule.js';

// Resolves imports the way TypeScript does in development: `#domain`, `#platform`, … through package.json
// `imports` (condition `development`, the sources), and `./x.js` to the `./x.ts` beside it.
export const importResolver = createNodeResolver({
  conditionNames: ['development', 'import', 'node', 'default'],
  extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.node'],
  extensionAlias: { '.js': ['.ts', '.js'], '.mjs': ['.mts', '.mjs'], '.cjs': ['.cts', '.cjs'] },
});

// No import cycle anywhere, through the path aliases too: a cycle makes a module's exports undefined
// while the other one loads, and hides which of the two is the base. import-x/no-cycle finds those of value
// imports; local/no-type-import-cycle those that go through a type-only import, which import-x leaves out.
export const importCycleRules = {
  plugins: {
    'import-x': importX,
    local: { rules: { 'no-type-import-cycle': typeImportCycleRule(importResolver) } },
  },
  settings: {
    'import-x/extensions': ['.ts', '.js', '.mjs', '.cjs'],
    'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    'import-x/resolver-next': [importResolver],
  },
  rules: {
    'import-x/no-cycle': ['error', { ignoreExternal: true }],
    'local/no-type-import-cycle': 'error',
  },
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.nx/**', 'apps/webhook-config/ui/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    // Everything here runs on Node (apps, libs, bench/, scripts/), except the merchant backend's browser UI below.
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'off',
      'no-console': 'off',
    },
  },
  { files: ['apps/webhook-config/ui/**/*.js'], languageOptions: { globals: globals.browser } },
  { files: ['**/*.ts', '**/*.js', '**/*.mjs'], ...importCycleRules },
);
