"""Audit records for permission changes made outside the services (e.g. in the Django admin)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models.signals import m2m_changed
from django.dispatch import receiver

from casino.audit import audit_append

User = get_user_model()


def _names(model: Any, pks: set[int] | None) -> list[str]:
    if not pks:
        return []
    field = "name" if model is Group else "codename"
    return sorted(model.objects.filter(pk__in=pks).values_list(field, flat=True))


@receiver(m2m_changed, sender=User.groups.through)
@receiver(m2m_changed, sender=User.user_permissions.through)
@receiver(m2m_changed, sender=Group.permissions.through)
def audit_permission_change(
    sender: Any, instance: Any, action: str, model: Any, pk_set: Any, **kwargs: Any
) -> None:
    if action not in ("post_add", "post_remove", "post_clear"):
        return
    # staff_role_assign and roles_sync audit their own changes with before and after.
    if getattr(instance, "_audit_by_service", False):
        return
    relation = {User.groups.through: "groups", User.user_permissions.through: "user_permissions"}.get(
        sender, "permissions"
    )
    audit_append(
        action=f"permissions.{action.removeprefix('post_')}",
        actor_name="system",
        object_type=f"{instance._meta.app_label}.{instance._meta.model_name}",
        object_id=instance.pk,
        after={"relation": relation, "changed": _names(model, pk_set)},
    )
