from rest_framework.negotiation import BaseContentNegotiation


class AlwaysJSONNegotiation(BaseContentNegotiation):
    """Every ``/api/v1`` answer is JSON, whatever ``Accept`` says; the parser is picked by Content-Type."""

    def select_parser(self, request, parsers):
        from rest_framework.negotiation import DefaultContentNegotiation

        return DefaultContentNegotiation().select_parser(request, parsers)

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
