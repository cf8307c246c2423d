"""Resolving governance at a path: precedence, explicit profiles, validity windows, overrides."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kapi.core.governance.errors import GovernanceError
from kapi.core.governance.resolve import (
    Channel,
    Collection,
    ContentItem,
    GovernanceProfile,
    GovernanceRecipe,
    VoiceBinding,
    compose_voice,
    resolve_governance,
    validate_recipe,
)
from kapi.core.governance.voice import load_voice_profile

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

RECIPE = GovernanceRecipe(
    profiles={
        "northsea": GovernanceProfile(
            name="northsea",
            channels=(Channel("docs"), Channel("app")),
            voice=VoiceBinding(pack="technical-docs"),
            termstore="northsea-terms",
        ),
        "summer": GovernanceProfile(
            name="summer",
            channels=(Channel("web"),),
            voice=VoiceBinding(pack="marketing-blog"),
            valid_from="2026-06-01",
            valid_to="2026-09-01",
        ),
        "legacy": GovernanceProfile(name="legacy", channels=(Channel("docs"),)),
    },
    collections=(
        Collection(
            name="docs",
            base="content",
            channel="northsea/docs",
            items=(
                ContentItem("docs/app/**", channel="northsea/app"),
                ContentItem("docs/**/*.md"),
                ContentItem("campaign/*.md", channel="summer/web"),
                ContentItem("old/*.md", channel="legacy/docs"),
            ),
            coordinates={"mode": "reference"},
        ),
        Collection(name="ui", items=(ContentItem("locales/*.json"),)),
    ),
    default_voice=VoiceBinding(profile="house"),
    default_coordinates={"brand": "kapi", "mode": "how-to"},
    exclude=("content/docs/drafts/**",),
)


def test_item_channel_wins_over_collection_channel() -> None:
    point = resolve_governance(RECIPE, "content/docs/app/setup.md", at=NOW)
    assert (point.profile, point.channel, point.collection) == ("northsea", "app", "docs")
    assert point.voice == VoiceBinding(pack="technical-docs")
    assert (point.voice_field, point.selection, point.termstore, point.fallback) == (
        "profile",
        "project",
        "northsea-terms",
        False,
    )


def test_collection_channel_applies_when_the_item_has_none() -> None:
    point = resolve_governance(RECIPE, "content/docs/guide/a.md", at=NOW)
    assert (point.profile, point.channel) == ("northsea", "docs")


def test_the_first_item_in_recipe_order_claims_the_file() -> None:
    # docs/app/** is declared before docs/**/*.md and both match
    assert resolve_governance(RECIPE, "content/docs/app/x.md", at=NOW).channel == "app"


def test_project_default_when_no_profile_governs() -> None:
    point = resolve_governance(RECIPE, "locales/fr.json", at=NOW)
    assert (point.profile, point.channel, point.collection) == ("", "", "ui")
    assert point.voice == VoiceBinding(profile="house")
    assert (point.voice_field, point.selection, point.fallback, point.termstore) == (
        "default",
        "project",
        True,
        "",
    )


def test_excluded_files_belong_to_no_item() -> None:
    point = resolve_governance(RECIPE, "content/docs/drafts/a.md", at=NOW)
    assert (point.collection, point.profile) == ("", "")


def test_no_voice_anywhere_is_selection_none() -> None:
    point = resolve_governance(GovernanceRecipe(), "a.md", at=NOW)
    assert (point.voice, point.selection, point.voice_field) == (None, "none", "")


def test_explicit_profile_outranks_location() -> None:
    point = resolve_governance(RECIPE, "content/docs/app/setup.md", at=NOW, profile="legacy")
    assert point.profile == "legacy"
    assert point.selection == "override"


def test_an_undeclared_explicit_profile_is_an_error() -> None:
    with pytest.raises(GovernanceError) as caught:
        resolve_governance(RECIPE, "a.md", at=NOW, profile="nope")
    assert "northsea" in caught.value.message


def test_a_profile_without_voice_uses_the_store_profile_of_its_name_then_the_default() -> None:
    assert resolve_governance(RECIPE, "content/old/a.md", at=NOW).voice == VoiceBinding(
        profile="house"
    )
    point = resolve_governance(RECIPE, "content/old/a.md", at=NOW, store_profiles={"legacy"})
    assert (point.voice, point.voice_field) == (VoiceBinding(profile="legacy"), "profile-store")


def test_explicit_voice_override_keeps_the_terms_of_the_point() -> None:
    point = resolve_governance(
        RECIPE, "content/docs/a.md", at=NOW, voice=VoiceBinding(pack="friendly-dtc")
    )
    assert (point.voice, point.selection, point.voice_field) == (
        VoiceBinding(pack="friendly-dtc"),
        "override",
        "override",
    )
    assert point.termstore == "northsea-terms"


def test_channel_flag_beats_the_resolved_channel() -> None:
    assert resolve_governance(RECIPE, "content/docs/a.md", at=NOW, channel="app").channel == "app"
    point = resolve_governance(RECIPE, "content/docs/a.md", at=NOW, channel="summer/web")
    assert (point.profile, point.channel) == ("summer", "web")


def test_coordinates_layer_defaults_channel_and_collection() -> None:
    point = resolve_governance(RECIPE, "content/docs/app/a.md", at=NOW)
    assert point.coordinates == {
        "brand": "kapi",
        "mode": "reference",
        "product": "northsea",
        "channel": "app",
    }


@pytest.mark.parametrize(
    ("at", "profile"),
    [
        (
            datetime(2026, 6, 1, 0, 0, tzinfo=UTC),
            "summer",
        ),  # valid_from inclusive, bare date = midnight UTC
        (datetime(2026, 5, 31, 23, 59, 59, tzinfo=UTC), "northsea"),
        (datetime(2026, 8, 31, 23, 59, 59, tzinfo=UTC), "summer"),
        (datetime(2026, 9, 1, 0, 0, tzinfo=UTC), "northsea"),  # valid_to exclusive
    ],
)
def test_validity_windows(at: datetime, profile: str) -> None:
    point = resolve_governance(RECIPE, "content/campaign/launch.md", at=at)
    assert point.profile == profile


def test_a_skipped_profile_is_reported_with_what_governs_instead() -> None:
    point = resolve_governance(RECIPE, "content/campaign/launch.md", at=NOW)
    assert [w.message for w in point.warnings] == [
        'governance: profile "summer" expired 2026-09-01; governing with profile "northsea"'
    ]
    early = resolve_governance(
        RECIPE, "content/campaign/launch.md", at=datetime(2026, 1, 1, tzinfo=UTC)
    )
    assert "is not valid until 2026-06-01" in early.warnings[0].message


def test_an_expired_explicit_profile_falls_back_with_a_warning() -> None:
    point = resolve_governance(RECIPE, "locales/fr.json", at=NOW, profile="summer")
    assert point.profile == ""
    assert "governing with the project default voice (store:house)" in point.warnings[0].message


def test_comments_resolve_their_own_channel_first() -> None:
    recipe = GovernanceRecipe(
        profiles=RECIPE.profiles,
        collections=(
            Collection(
                items=(
                    ContentItem("src/**", channel="northsea/docs", comments_channel="northsea/app"),
                )
            ),
        ),
    )
    assert resolve_governance(recipe, "src/a.py", at=NOW, comments=True).channel == "app"
    assert resolve_governance(recipe, "src/a.py", at=NOW).channel == "docs"


def test_validate_recipe_accepts_the_example() -> None:
    validate_recipe(RECIPE)


@pytest.mark.parametrize(
    ("recipe", "key", "words"),
    [
        (
            GovernanceRecipe(profiles={"North": GovernanceProfile("North")}),
            "profiles.North",
            "slug",
        ),
        (
            GovernanceRecipe(
                profiles={"n": GovernanceProfile("n", channels=(Channel("a"), Channel("a")))}
            ),
            "profiles.n.channels[1]",
            "twice",
        ),
        (
            GovernanceRecipe(profiles={"n": GovernanceProfile("n", valid_to="someday")}),
            "profiles.n.valid_to",
            "not a date",
        ),
        (
            GovernanceRecipe(
                profiles={"n": GovernanceProfile("n", voice=VoiceBinding(profile="a", pack="b"))}
            ),
            "profiles.n.voice",
            "exactly one",
        ),
        (
            GovernanceRecipe(collections=(Collection(channel="docs"),)),
            "collections[0].channel",
            "profile/channel",
        ),
        (
            GovernanceRecipe(
                profiles=RECIPE.profiles,
                collections=(Collection(items=(ContentItem("a", channel="northsea/web"),)),),
            ),
            "collections[0].content[0].channel",
            "northsea/docs",
        ),
        (
            GovernanceRecipe(collections=(Collection(items=(ContentItem("a/[b"),)),)),
            "collections[0].content[0].path",
            "unclosed",
        ),
        (
            GovernanceRecipe(default_coordinates={"channel": "x"}),
            "defaults.coordinates.channel",
            "may not name",
        ),
        (GovernanceRecipe(default_voice=VoiceBinding()), "defaults.voice", "exactly one"),
    ],
)
def test_validate_recipe_refusals_name_the_key(
    recipe: GovernanceRecipe, key: str, words: str
) -> None:
    with pytest.raises(GovernanceError) as caught:
        validate_recipe(recipe)
    assert caught.value.key == key
    assert words in caught.value.message


# --------------------------------------------------------------------------- overrides

PROFILE, _ = load_voice_profile(
    {
        "name": "base",
        "tone": {"formality": "neutral", "humor": "light"},
        "style": {"person_pov": "second", "prohibited_patterns": [r"\bsimply\b"]},
        "vocabulary": {"forbidden_terms": [{"term": "mooring", "replacement": "berth"}]},
        "constraints": [{"id": "c1", "kind": "guidance", "statement": "kind"}],
        "locales": {
            "fr": {
                "formality": "formal",
                "person_pov": "third",
                "vocabulary_overrides": {
                    "forbidden_terms": ["okay"],
                    "preferred_terms": [
                        {"term": "berth", "replacement": "mooring"},
                        {"term": "ship", "replacement": "vessel"},
                    ],
                },
            }
        },
        "channels": {
            "app": {
                "tone": {"formality": "casual"},
                "style": {"person_pov": "second"},
                "vocabulary": {"competitor_terms": ["SeaCorp"]},
            },
        },
        "personas": {
            "captain": {
                "tone": {"formality": "formal"},
                "avoided_terms": ["wheel"],
                "preferred_terms": ["mooring"],
            }
        },
    },
    "voice.yaml",
)


def test_overrides_apply_locale_then_channel_then_persona() -> None:
    composed, _ = compose_voice(PROFILE, locale="fr-CA", channel="app", persona="captain")
    # persona's tone replaced the channel's, which replaced the locale's formality
    assert composed.tone.formality == "formal"
    forbidden = [rule.term for rule in composed.vocabulary.forbidden_terms]
    assert forbidden == ["mooring", "okay", "wheel"]
    assert [rule.term for rule in composed.vocabulary.competitor_terms] == ["SeaCorp"]
    assert composed.constraints == PROFILE.constraints


def test_locale_override_sets_its_fields_only() -> None:
    composed, warnings = compose_voice(PROFILE, locale="fr")
    assert (composed.tone.formality, composed.tone.humor, composed.style.person_pov) == (
        "formal",
        "light",
        "third",
    )
    assert composed.style.prohibited_patterns == PROFILE.style.prohibited_patterns
    # "berth → mooring" would loosen the rule against "mooring": dropped with a warning
    assert [w.code for w in warnings] == ["voice.preferred_term_dropped"]
    assert [rule.term for rule in composed.vocabulary.preferred_terms] == ["ship"]


def test_a_replaced_style_that_loses_a_pattern_warns() -> None:
    composed, warnings = compose_voice(PROFILE, channel="app")
    assert composed.style.prohibited_patterns == ()
    assert [(w.code, w.key) for w in warnings] == [
        ("voice.override_drops_pattern", "channels.app.style")
    ]


def test_persona_preferred_term_already_governed_is_dropped() -> None:
    _, warnings = compose_voice(PROFILE, persona="captain")
    assert [(w.code, w.source) for w in warnings] == [("voice.preferred_term_dropped", "")]


def test_no_override_changes_nothing() -> None:
    composed, warnings = compose_voice(PROFILE, locale="de", channel="web", persona="guest")
    assert composed == PROFILE
    assert warnings == ()
