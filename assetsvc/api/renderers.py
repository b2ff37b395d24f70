from rest_framework.renderers import JSONRenderer


class ApiJSONRenderer(JSONRenderer):
    """JSON whatever ``Accept`` says (API-CONTRACT.md §1): never a 406, never HTML."""

    media_type = "application/json"
    format = "json"
