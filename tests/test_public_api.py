import groundsearch


def test_public_surface_is_small_and_exact() -> None:
    assert sorted(groundsearch.__all__) == [
        "Engine", "GroundsearchError", "Intent", "SearchRequest", "SearchResponse", "Settings", "load_settings",
    ]
    for name in groundsearch.__all__:
        assert getattr(groundsearch, name) is not None
