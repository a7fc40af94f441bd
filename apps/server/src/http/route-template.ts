const templates = new Map<string, string>();

/**
 * A router path as the OpenAPI document names it: `/plants/{id}`, never the router's
 * `/plants/:id`. Used in messages and log lines; memoised (a handful of routes, every request).
 */
export const routeTemplate = (routerPath: string): string => {
  let template = templates.get(routerPath);
  if (template === undefined) {
    template = routerPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    templates.set(routerPath, template);
  }
  return template;
};

interface MatchedRoute {
  readonly _matchedRoute?: string | RegExp;
}

/** The template of the route that matched the request (@koa/router leaves it on the context); undefined when none did. */
export const matchedRoute = (ctx: object): string | undefined => {
  const matched = (ctx as MatchedRoute)._matchedRoute;
  return matched === undefined ? undefined : routeTemplate(String(matched));
};
