/** Tailwind 4: the PostCSS plugin reads `@import "tailwindcss"` in app/globals.css; there is no tailwind config file. */
export default {
  plugins: {
    '@tailwindcss/postcss': {},
  },
};
