"""The database itself refuses UPDATE, DELETE and TRUNCATE of round events, payout lines and
payout decisions, as it does for the audit records and the ledger: a round's log, what each bet
got back and the pit boss's decisions are written once."""

from django.db import migrations

TABLES = ("tables_roundevent", "tables_payoutline", "tables_payoutdecision")

FUNCTION = """
CREATE OR REPLACE FUNCTION tables_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% of % refused: the table is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
"""


def forward(apps, schema_editor):
    # A cursor without parameters: the '%' of RAISE formats must reach PostgreSQL as they are.
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(FUNCTION)
        for table in TABLES:
            cursor.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION tables_refuse_change()"
            )
            cursor.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION tables_refuse_change()"
            )


def backward(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        for table in TABLES:
            cursor.execute(f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table}")
            cursor.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")
        cursor.execute("DROP FUNCTION IF EXISTS tables_refuse_change()")


class Migration(migrations.Migration):
    dependencies = [("tables", "0005_payout_decision")]
    operations = [migrations.RunPython(forward, backward)]
