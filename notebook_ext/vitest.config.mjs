// Unit tests of the front-end logic (tests/*.test.ts): the step model, the views, the DOT/layout
// adapter, the schema-version check and the DOM contract, in happy-dom with the real Graphviz wasm.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    environment: 'happy-dom',
    testTimeout: 30000
  }
});
