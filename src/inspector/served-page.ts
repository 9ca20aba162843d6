/** A page the inspector server serves: its HTML and the Content-Security-Policy it is served with. */
export interface ServedPage {
  readonly html: string;
  readonly csp: string;
}
