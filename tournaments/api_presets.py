"""The v1 API of the rule presets: what each offers, before a tournament is created from one."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.selectors import presets_offered


class PresetStageSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="In the language of the request.")
    kind = serializers.CharField()
    rounds = serializers.IntegerField()
    starting_double = serializers.IntegerField()
    table_size_min = serializers.IntegerField()
    table_size_max = serializers.IntegerField()


class DealSerializer(serializers.Serializer):
    players = serializers.IntegerField(help_text="Players at a table.")
    tiles = serializers.IntegerField(help_text="Tiles dealt to each of them.")


class PresetSetSerializer(serializers.Serializer):
    domino_set = serializers.IntegerField()
    label = serializers.CharField()
    table_size_min = serializers.IntegerField()
    table_size_max = serializers.IntegerField()
    deal = DealSerializer(many=True)
    stages = PresetStageSerializer(
        many=True, help_text="The stages created with this set when with_stages is true."
    )


class PresetSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The tournament's preset value.")
    label = serializers.CharField()
    description = serializers.CharField()
    source = serializers.CharField(help_text="The title of the rules document it follows.")
    default_set = serializers.IntegerField()
    sets = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="The domino sets a tournament with this preset may use; any other is a 400.",
    )
    by_set = PresetSetSerializer(many=True)


class PresetListApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(responses=PresetSerializer(many=True))
    def get(self, request: Request) -> Response:
        """Each rule preset: its description, rules document, the sets it supports and, for each
        set, the deal and the stages it creates."""
        return Response(PresetSerializer(presets_offered(), many=True).data)
