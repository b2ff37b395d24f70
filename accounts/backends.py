from django.contrib.auth.backends import ModelBackend


class UsernameBackend(ModelBackend):
    """Admin sign-in by username, case-insensitively among non-deleted users (usernames are unique only there,
    so Django's unique ``USERNAME_FIELD`` check is replaced by the ``user_username_ci_unique_alive`` constraint)."""

    def user_can_authenticate(self, user) -> bool:
        return super().user_can_authenticate(user) and user.deleted_at is None
