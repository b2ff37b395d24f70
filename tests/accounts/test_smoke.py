def test_me(token_client, superuser):
    r = token_client.get("/api/v1/users/me")
    assert r.status_code == 200, r.content
    assert r.json()["username"] == "admin"
