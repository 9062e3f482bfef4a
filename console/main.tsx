import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { whenUnauthorized } from './api';
import { CampaignPage } from './pages/campaign-page';
import { CampaignsPage } from './pages/campaigns-page';
import { GeneratePage } from './pages/generate-page';
import { ModelsPage } from './pages/models-page';
import { NewRunPage } from './pages/new-run-page';
import { NotFoundPage } from './pages/not-found-page';
import { ReviewPage } from './pages/review-page';
import { RunPage } from './pages/run-page';
import { RunsPage } from './pages/runs-page';
import { SignInPage } from './pages/sign-in-page';
import { SubjectsPage } from './pages/subjects-page';
import { UsagePage } from './pages/usage-page';
import { Navigation } from './parts/navigation';
import { SharedLinkBanner } from './parts/shared-link-banner';
import { useRoute, type Route } from './router';
import { takeSharedLinkFromUrl } from './shared-link';
import { forgetSharedLink, forgetToken, savedSharedLink, savedToken, type SharedLink } from './session';

function Page({ route }: { route: Route }) {
  const [section = 'runs', id, action] = route.path;
  if (section === 'runs' && id) return <RunPage workflowId={id} />;
  if (section === 'review' && id) return <ReviewPage workflowId={id} />;
  if (section === 'new') return <NewRunPage />;
  if (section === 'models' && id && action === 'generate')
    return <GeneratePage modelId={Number(id)} subjectId={route.query.get('subject') ?? undefined} />;
  if (section === 'models') return <ModelsPage />;
  if (section === 'campaigns' && id) return <CampaignPage campaignId={id} />;
  if (section === 'campaigns') return <CampaignsPage />;
  if (section === 'subjects') return <SubjectsPage />;
  if (section === 'usage') return <UsagePage />;
  if (section === 'runs') return <RunsPage query={route.query} />;
  return <NotFoundPage path={route.path} />;
}

/**
 * A tab opened from a shared link shows pages of the link's kind only (runs, campaigns or a
 * review), with the link's token: its run or campaign, or, asked for another, the API's answer
 * for one it does not know.
 */
function SharedPage({ route, link }: { route: Route; link: SharedLink }) {
  const [section, asked] = route.path;
  const id = section === link.section && asked ? asked : link.id;
  if (link.section === 'review') return <ReviewPage workflowId={id} viaLink />;
  return link.section === 'runs' ? (
    <RunPage workflowId={id} readOnly />
  ) : (
    <CampaignPage campaignId={id} readOnly />
  );
}

function Console() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(() => savedToken() !== undefined);
  const [link, setLink] = useState(savedSharedLink);
  useEffect(
    () =>
      whenUnauthorized(() => {
        setSignedIn(savedToken() !== undefined);
        setLink(savedSharedLink());
      }),
    [],
  );
  // Each page's heading takes the focus, so keyboard and screen-reader users land on the new page.
  useEffect(() => {
    document.querySelector<HTMLElement>('main h1')?.focus();
  }, [route.path.join('/'), signedIn, link]);
  if (link) {
    const leave = () => {
      forgetSharedLink();
      setLink(undefined);
    };
    return (
      <>
        <SharedLinkBanner section={link.section} onLeave={leave} />
        <main id="main">
          <SharedPage route={route} link={link} />
        </main>
      </>
    );
  }
  if (!signedIn) return <SignInPage onSignedIn={() => setSignedIn(true)} />;
  const signOut = () => {
    forgetToken();
    setSignedIn(false);
  };
  return (
    <>
      <Navigation current={route.path[0] ?? 'runs'} onSignOut={signOut} />
      <main id="main">
        <Page route={route} />
      </main>
    </>
  );
}

takeSharedLinkFromUrl();
render(<Console />, document.getElementById('console')!);
