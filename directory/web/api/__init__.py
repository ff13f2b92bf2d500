"""The JSON API (``<prefix>/api/v1/...``): its views, the representations it answers with and
the OpenAPI document that describes them (docs/api.md)."""
