from tests.helpers import act, legal_texts, side, table, zones


def test_lure_cancelled_by_feather_sends_both_cards_to_discard():
    game = table(hands=[{"Lure": 1}, {"Feather": 1}], sides=[{"free": 1}, {"free": 2}])
    act(game, "Lure → seat 1")
    assert game.current_player == 1
    assert legal_texts(game) == ["Pass", "Feather: cancel it"]
    act(game, "Feather: cancel it")
    z = zones(game)
    assert z["discard"] == {"Lure": 1, "Feather": 1}
    assert z["hands"] == [{}, {}]
    assert z["sides"] == [side(free=1), side(free=2)]
    assert game.current_player == 0
