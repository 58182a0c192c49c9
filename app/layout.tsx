import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { IdentityProvider } from '@/components/identity';
import { Providers } from '@/components/providers';
import { SiteHeader } from '@/components/site-header';
import { requestIdentity } from '@/server/http/identity';
import { THEME_SCRIPT } from '@/components/theme/theme';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'planscope', template: '%s · planscope' },
  description: 'Run a plan-and-execute agent on a local model and inspect every plan, step, observation and citation.',
};

export const viewport: Viewport = {
  colorScheme: 'light dark',
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#ffffff' },
    { media: '(prefers-color-scheme: dark)', color: '#18181b' },
  ],
};

/** Every page says who is looking, and as what: the gate's identity of the request. */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const identity = await requestIdentity();
  return (
    // The inline script sets the theme on <html> before the first paint; React is told not to mind the attributes it adds.
    <html lang="en" suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body className="min-h-dvh">
        <a
          href="#main"
          className="sr-only z-50 rounded bg-white px-3 py-2 focus:not-sr-only focus:fixed focus:top-2 focus:left-2 dark:bg-zinc-900"
        >
          Skip to content
        </a>
        <Providers>
          <IdentityProvider identity={identity}>
            <SiteHeader identity={identity} />
            <main id="main" className="mx-auto max-w-[1600px] px-4 py-4">
              {children}
            </main>
          </IdentityProvider>
        </Providers>
      </body>
    </html>
  );
}
