import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'libs/db/src/generated/**', '.data/**', 'coverage/**', 'services/gateway/ui/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'ExportAllDeclaration', message: 'Use explicit named exports.' }],
    },
  },
  {
    // Tests read JSON response bodies without declaring a type for each one.
    files: ['**/test/**/*.ts', 'libs/testing/src/http-client.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The web UI runs in the browser.
    files: ['services/gateway/ui/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
