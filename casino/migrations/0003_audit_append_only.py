"""The database itself refuses UPDATE, DELETE and TRUNCATE of audit records."""

from django.db import migrations

FORWARD = """
CREATE OR REPLACE FUNCTION casino_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% of % refused: the table is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER casino_auditrecord_append_only
    BEFORE UPDATE OR DELETE ON casino_auditrecord
    FOR EACH ROW EXECUTE FUNCTION casino_refuse_change();
CREATE TRIGGER casino_auditrecord_no_truncate
    BEFORE TRUNCATE ON casino_auditrecord
    FOR EACH STATEMENT EXECUTE FUNCTION casino_refuse_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS casino_auditrecord_no_truncate ON casino_auditrecord;
DROP TRIGGER IF EXISTS casino_auditrecord_append_only ON casino_auditrecord;
"""


def forward(apps, schema_editor):
    schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("casino", "0002_initial")]
    operations = [migrations.RunPython(forward, backward)]
