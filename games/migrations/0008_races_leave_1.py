"""Races move to their own app (races/): first, the relations that would clash with races.Race's while both are in the state. State only: no table changes."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_fair_races'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(
                    model_name='race',
                    name='host',
                ),
            ],
        ),
    ]
