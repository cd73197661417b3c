"""Request hardening around the app: owner authentication (Cloudflare Access JWT, owner
token, local owner), CSRF, Host allow-list, rate limits, path normalisation, response
headers and log redaction. `middleware.SecurityMiddleware` wires them together."""
