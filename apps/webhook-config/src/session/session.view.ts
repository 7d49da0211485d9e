/** What the session endpoints answer: the signed-in user and the session's CSRF token. */
export interface SessionView {
  email: string;
  csrfToken: string;
}
