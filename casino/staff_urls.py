from django.urls import path

from casino import i18n_views, staff_views, views

app_name = "casino"

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", views.login_view, name="login"),
    path("logout/", views.logout_view, name="logout"),
    path("account/password/", views.password_change_view, name="password_change"),
    path("language/", i18n_views.language_switch, name="language"),
    path("dealer/", views.dealer_home, name="dealer_home"),
    path("operator/terminals/", views.terminals, name="terminals"),
    path(
        "operator/terminals/<int:terminal_id>/credentials/",
        views.terminal_credential_issue_view,
        name="terminal_credential_issue",
    ),
    path(
        "operator/credentials/<int:credential_id>/revoke/",
        views.terminal_credential_revoke_view,
        name="terminal_credential_revoke",
    ),
    path("operator/staff/", staff_views.staff_list, name="staff_list"),
    path("operator/staff/new/", staff_views.staff_create_view, name="staff_create"),
    path("operator/staff/<int:user_id>/", staff_views.staff_member, name="staff_member"),
    path(
        "operator/staff/<int:user_id>/password/",
        staff_views.staff_password_reset_view,
        name="staff_password_reset",
    ),
    path(
        "operator/staff/<int:user_id>/<slug:action>/",
        staff_views.staff_member_action,
        name="staff_member_action",
    ),
]
