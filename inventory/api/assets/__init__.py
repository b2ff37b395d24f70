"""The ``/hardware`` API: input serializers, the asset record, and the viewset."""
