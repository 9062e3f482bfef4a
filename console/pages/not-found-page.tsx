import { href } from '../router';
import { PageHeading } from '../parts/page-heading';

/** An address the console has no page for: said so, with the way back, rather than another page. */
export function NotFoundPage({ path }: { path: string[] }) {
  return (
    <>
      <PageHeading title="Page not found">Page not found</PageHeading>
      <p>
        The console has no page at <code>#/{path.join('/')}</code>. <a href={href(['runs'])}>See the runs</a>.
      </p>
    </>
  );
}
